def pipeline(x):
    def clean(v):
        return v

    def stage(v):
        return clean(v)

    return stage(x)


pipeline(1)
