class Point {
  constructor(private x: number) {}
}