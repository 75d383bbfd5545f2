(async function () {let a = 3; const s = '<!-- -->'; return [s, a-->1]
})