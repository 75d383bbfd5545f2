(async function () {label: { break label }
return `${`${1}`}`
})