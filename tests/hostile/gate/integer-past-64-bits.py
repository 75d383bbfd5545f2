# expect: runtime
# output: TypeError: arguments of `echo` must be plain data
# output: the integer 18446744073709551617, past what a tool receives exactly (64 bits)
await tools.echo(n=2**64 + 1)
