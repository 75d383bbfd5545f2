(async function () {const s = 'a/b'; const n         = 9; const x = n          
if (/\//.test(s)) return [n / 3, x  / 3, s.split(/\//).length, `${n / 9}` ]
})