import { describeDbContract } from '../db.contract.js';
import { sqliteTestDatabase } from '../../../test/support/databases.js';

describeDbContract(sqliteTestDatabase);
