# expect: runtime
# output: INVALID_ARGUMENTS
# 33 levels, each holding the one below twice: 2**32 leaves.
a = [0]
for _ in range(33):
    a = [a, a]
await tools.echo(a=a)
