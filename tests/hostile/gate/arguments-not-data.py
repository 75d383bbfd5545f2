# expect: runtime
# output: TypeError: arguments of `echo` must be plain data (dict, list, str, int, float, bool, None): got a value of type set
await tools.echo(a={1, 2})
