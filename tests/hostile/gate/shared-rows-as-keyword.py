# expect: runtime
# output: INVALID_ARGUMENTS
# output: a value passed n times is copied n times
# 10,000 references to one list of 1,000 zeros: 80 KB in the worker,
# 1.4 GB once copied out (issue 39).
await tools.echo(self=[[0] * 1000] * 10000)
