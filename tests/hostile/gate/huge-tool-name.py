# expect: runtime
# output: UNKNOWN_TOOL
# output: a name of 8388608 characters
# max-text-bytes: 2000
await tools['x' * (8 << 20)](a=1)
