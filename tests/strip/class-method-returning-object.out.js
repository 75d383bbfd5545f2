(async function () {class A { m() { return {} } }
return new A().m()
})