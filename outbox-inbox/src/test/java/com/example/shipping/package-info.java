/**
 * The consumer examples of the README's inbox section, compiled with the tests and shown in the
 * README exactly as they are here ({@code InboxDocumentationTest}): a message-driven bean and a
 * Kafka consumer loop in Java SE.
 */
package com.example.shipping;
