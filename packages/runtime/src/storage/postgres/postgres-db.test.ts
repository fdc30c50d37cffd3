import { describeDbContract } from '../db.contract.js';
import { postgresTestDatabase } from '../../../test/support/databases.js';

// Skipped only where no PostgreSQL is configured; CI sets REQUIRE_POSTGRES=1 so it always runs.
describeDbContract(postgresTestDatabase);
