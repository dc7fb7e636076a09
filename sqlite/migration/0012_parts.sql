-- The part vectors of a memory (hippo.Chunk.Parts): one per sentence of a
-- short memory of several sentences, each mixed with the whole memory's
-- vector; concatenated float32s (vector.Encode), NULL for none. Recall
-- finds a memory through any of them. Derived from the content and the
-- embedding: content updates and reembed rewrite them.
ALTER TABLE chunks ADD COLUMN parts BLOB;
