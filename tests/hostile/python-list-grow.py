# expect: memory
# output: memory limit of 64 MiB
a = []
while True:
    a.append('x' * 10000)
