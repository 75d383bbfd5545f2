const s = 'a/b'; const n: number = 9; const x = n as number
if (/\//.test(s)) return [n / 3, x! / 3, s.split(/\//).length, `${n / 9}` ]