
in0
in1
in2out0"	ScatterND