const s = 'unterminated
return s