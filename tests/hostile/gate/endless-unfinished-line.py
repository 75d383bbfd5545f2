# expect: timeout
# timeout-ms: 5000
# output: more bytes of this line left out
# One line growing by 1 MiB a print: each print is scanned once, and the
# line kept to the output cap.
s = 'x' * (1 << 20)
while True:
    print(s, end='')
