# expect: timeout
# A built-in that loops inside the interpreter.
sum(range(10**12))
