/**
 * The consumer examples of the manual's inbox guide (docs/guides/inbox.md), compiled with the
 * tests and shown there exactly as they are here ({@code InboxDocumentationTest}): a
 * message-driven bean and a Kafka consumer loop in Java SE.
 */
package com.example.shipping;
