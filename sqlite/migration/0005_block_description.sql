-- An optional description of what a memory block is for.
ALTER TABLE memory_blocks ADD COLUMN description TEXT NOT NULL DEFAULT '';
