
in0
in1out0"GatherND