"""The live rooms of this process: one `LiveRoom` per live match, behind declared seams.

The walk of a move (docs/architecture.md draws it):

    socket (lobby/table_consumers.py, api/consumers.py)   parse, act, send
      → rooms.Rooms.act       the registry: the room here, or its owner process (owners)
      → room.LiveRoom.apply   checks and applies it with the game's rules, one at a time
      → store.Writer          group commit, through the store (store.Store: SQL, the fence)
      → rooms.Outbox.publish  renders once (render) and delivers in order to the listeners
      → stream.Gate           each socket's versions, and what waits while it draws its table

Each seam is one module; an implementation (the store of PostgreSQL, of an SQLite file, the
ORM's) is chosen by the database, never by a flag, and never a second road around the seam.
"""
