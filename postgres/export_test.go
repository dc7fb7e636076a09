package postgres

// MigrationFS is the embedded migrations, for the tests.
var MigrationFS = migrationFS
