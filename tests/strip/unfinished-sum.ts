return 1 +

