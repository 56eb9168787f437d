/**
 * {@link dev.outboxer.postgresql.RecoverablePGXADataSource}: pgjdbc's XA data source whose prepared
 * branches are finished by the transaction manager's recovery when the session that prepared them
 * was terminated. Independent of the rest of Outboxer: it depends on pgjdbc only.
 */
package dev.outboxer.postgresql;
