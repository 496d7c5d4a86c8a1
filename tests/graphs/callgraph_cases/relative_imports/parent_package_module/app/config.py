def get(key):
    return key
