DROP TABLE sign_in_slow;
DROP TABLE sign_in_failures;
