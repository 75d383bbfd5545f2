# expect: memory or timeout
s = 'a' * 10**10
len(s)
