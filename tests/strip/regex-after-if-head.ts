if (a) /}/.test(s)
return 1