# expect: timeout
x = 0
for i in range(10**12):
    x += i
x
