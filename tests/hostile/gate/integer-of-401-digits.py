# expect: runtime
# output: the integer 10000000000000000000… (401 digits)
await tools.echo(n=10**400)
