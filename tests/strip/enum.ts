enum Color { Red }
return Color.Red