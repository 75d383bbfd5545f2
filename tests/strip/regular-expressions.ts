const text = 'a 1-2, b 3-4'
const m = text.match(/(\d+)-(\d+)/)
if (!m) return null
const parts = text.replace(/\s+/g, ' ').split(/,\s*/)
return [parts.length, Number(m[1]) / 2, /[}]/.test('}')]