def compute():
    return 1


calc = compute
also = calc
also()
