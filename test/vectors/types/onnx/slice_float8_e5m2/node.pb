
in0
in1
in2
in3out0"Slice