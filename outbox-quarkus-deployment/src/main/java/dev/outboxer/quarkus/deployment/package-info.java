/** The build steps of Outboxer's Quarkus extension (loaded by Quarkus at build time only). */
package dev.outboxer.quarkus.deployment;
