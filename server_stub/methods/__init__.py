"""JMAP methods: get, set and query for every object type, and Core/echo."""
