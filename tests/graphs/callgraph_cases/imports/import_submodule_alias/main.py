import pkg.storage as store

store.save(1)
