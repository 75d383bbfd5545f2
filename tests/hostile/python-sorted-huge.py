# expect: memory or timeout
a = sorted(list(range(10**9)))
len(a)
