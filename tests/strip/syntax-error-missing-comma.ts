const a = 1
foo(a b)