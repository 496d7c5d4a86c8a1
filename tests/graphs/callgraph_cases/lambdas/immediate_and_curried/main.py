def leaf():
    return "leaf"


result = (lambda: leaf())()
curried = lambda a: lambda b: leaf()
curried(1)(2)
