# expect: timeout
# timeout-ms: 3000
# output: the last to a name of 8388608 characters
# max-text-bytes: 2000
name = 'y' * (8 << 20)
try:
    await tools[name](a=1)
except Exception:
    pass
while True:
    pass
