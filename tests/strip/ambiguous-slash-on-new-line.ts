let x = a
/b/g.exec(s)