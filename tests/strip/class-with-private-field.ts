class Counter {
  #n = 0
  static readonly step: number = 2
  get value(): number { return this.#n }
  bump(): this { this.#n += Counter.step; return this }
}
const c = new Counter().bump().bump()
return c.value