# expect: memory
# output: the program's value would be
s = 'x' * (16 << 20)
[s] * 64
