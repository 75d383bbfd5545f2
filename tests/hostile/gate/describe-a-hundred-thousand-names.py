# expect: ok
# output: describe_tools: at most 256 names at once
# A hundred thousand names refused by their count, before any is copied.
names = ['x'] * 100_000
said = None
try:
    describe_tools(names)
except TypeError as e:
    said = str(e)
said
