def run():
    import registry

    return registry.lookup("k")


run()
