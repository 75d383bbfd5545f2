(async function () {class Counter {
  #n = 0
  static          step         = 2
  get value()         { return this.#n }
  bump()       { this.#n += Counter.step; return this }
}
const c = new Counter().bump().bump()
return c.value
})