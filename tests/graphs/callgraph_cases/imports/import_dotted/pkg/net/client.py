def fetch():
    return 1
