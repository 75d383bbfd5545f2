# expect: timeout
# output: it was running Python when the limit struck
while True:
    pass
