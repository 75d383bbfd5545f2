# expect: memory or timeout
# Big-integer arithmetic: 2**10**9 needs 125 MB.
x = 2**10**9
1
