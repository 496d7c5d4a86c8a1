import pkg

pkg.engine.start()
