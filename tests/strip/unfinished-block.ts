if (ok) {
  return 1