
in0out0out1"Split*
axis *
num_outputs 