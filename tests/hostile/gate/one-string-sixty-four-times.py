# expect: runtime
# output: INVALID_ARGUMENTS
s = 'x' * (16 << 20)
await tools.echo(a=[s] * 64)
