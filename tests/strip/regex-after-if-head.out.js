(async function () {if (a) /}/.test(s)
return 1
})