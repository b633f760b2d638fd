/**
 * Reads `.env` in the working directory into `process.env`, as the server and the command line
 * start (README, "Configuration"): a variable the process's own environment sets wins over the
 * file, and without the file nothing happens. Node's own parser (`process.loadEnvFile`, Node >=
 * 20.12) reads it. Imported for its effect, before anything reads the configuration.
 */
try {
  process.loadEnvFile('.env');
} catch (err) {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
}
