# expect: memory
# output: the program's value would be
# Not JSON (bytes): its repr would be written, 2**41 leaves of it.
a = b'x'
for _ in range(41):
    a = [a, a]
a
